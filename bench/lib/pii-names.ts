/**
 * First and last names of many origins for bench/pii.ts (written as an English speaker would read
 * them aloud). Not used by the recognizers: the detector must not know the names it is measured on.
 */

const list = (s: string) => s.trim().split(/\s+/);

export const FIRST_NAMES = list(`
  james mary robert patricia michael jennifer william linda david elizabeth richard barbara joseph susan thomas jessica charles sarah
  christopher karen daniel nancy matthew lisa anthony betty mark margaret donald sandra steven ashley paul kimberly andrew emily
  joshua donna kenneth michelle kevin carol brian amanda george melissa timothy deborah ronald stephanie edward rebecca jason sharon
  jeffrey laura ryan cynthia jacob kathleen gary amy nicholas angela eric shirley jonathan anna stephen brenda larry pamela justin emma
  scott nicole brandon helen benjamin samantha samuel katherine gregory christine alexander debra frank rachel patrick carolyn raymond
  janet jack catherine dennis maria jerry heather tyler diane aaron ruth jose julie adam olivia henry joyce nathan virginia douglas
  victoria zachary kelly peter lauren kyle christina walter joan ethan evelyn jeremy judith harold megan keith andrea christian cheryl
  roger hannah noah jacqueline gerald martha carl gloria terry teresa sean ann austin sara arthur madison lawrence frances
  juan carlos luis miguel alejandro javier diego sofia valentina camila lucia isabella mateo santiago guadalupe rosa carmen pedro
  wei li ming xiu jun hui yan lei fang jing chen hao mei lin
  priya rahul anjali vikram deepak sunita arjun kavya rohan lakshmi sanjay pooja ravi anita
  chidi ngozi emeka oluwaseun adebayo chioma kwame abena kofi amara tunde folake
  mohammed ahmed fatima aisha omar yusuf layla hassan zainab karim amina tariq
  olga dmitri ivan natasha sergei katarina piotr agnieszka tomasz jakub
  hiroshi yuki takeshi haruka kenji aiko minjun jiwoo seojun thanh linh minh
  hans greta klaus ingrid lars astrid giovanni francesca marco giulia siobhan declan niamh ciaran
  nikos eleni mehmet ayse emre zeynep
`);

export const LAST_NAMES = list(`
  smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas taylor moore
  jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king wright scott torres
  nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker
  cruz edwards collins reyes stewart morris morales murphy cook rogers gutierrez ortiz morgan cooper peterson bailey reed kelly howard
  ramos kim cox ward richardson watson brooks chavez wood james bennett gray mendoza ruiz hughes price alvarez castillo sanders patel
  myers long ross foster jimenez powell jenkins perry russell sullivan bell coleman butler henderson barnes gonzales fisher vasquez
  simmons romero jordan patterson alexander hamilton graham reynolds griffin wallace moreno west cole hayes bryant herrera gibson ellis
  tran medina aguilar stevens murray ford castro marshall owens harrison fernandez mcdonald woods washington kennedy wells vargas
  henry chen freeman webb tucker guzman burns crawford olson simpson porter hunter gordon mendez silva shaw snyder mason dixon munoz
  wang zhang liu yang huang zhao wu zhou xu sun ma zhu hu guo
  sharma singh kumar gupta mehta reddy iyer nair chatterjee banerjee desai joshi
  okonkwo adeyemi okafor eze nwosu mensah boateng owusu abubakar diallo
  khan ali hussain rahman haddad nasser saleh mansour aziz
  ivanov petrov smirnov kowalski nowak wisniewski novak horvat kovacs
  tanaka suzuki takahashi watanabe yamamoto nakamura park choi jung pham hoang
  mueller schmidt schneider fischer weber becker rossi russo ferrari esposito bianchi romano
  obrien oconnor byrne doyle quinn lynch papadopoulos yilmaz kaya demir celik
  andersson johansson larsen hansen nielsen virtanen
`);
